"""Before any screen: the one line an SSH client without a terminal gets is in its language."""
from __future__ import annotations

import asyncio

import asyncssh
import pytest

from tests.e2e.harness import running_server
from tui.i18n import Translator

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("lang_env", "lang"), [("es_AR.UTF-8", "es"), ("pt_BR.UTF-8", "pt"), ("C", "en")])
async def test_ssh_without_a_terminal_is_told_why_in_its_language(tmp_path, lang_env: str, lang: str) -> None:
    async with running_server(tmp_path) as srv:
        conn = await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", srv.port, username="probe", known_hosts=None, client_keys=[], agent_path=None,
            password="x", preferred_auth="keyboard-interactive,password"), 10)
        async with conn:
            result = await asyncio.wait_for(conn.run(term_type=None, env={"LANG": lang_env}), 10)
    assert result.exit_status == 1
    assert result.stdout == f"truco-ssh: {Translator(lang)('notice.no_terminal')}\r\n"
    assert "-T" in result.stdout
