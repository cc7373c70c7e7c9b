"""``truco-ssh serve --config PATH`` and ``truco-ssh config example``."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from server.cli.main import build_parser, config_from_args, main
from server.cli.settings_file import SettingsError, example, load_settings, settable


def serve_parser():  # type: ignore[no-untyped-def]
    return build_parser().commands["serve"]


def parse(argv: list[str], settings: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    parser = build_parser()
    if settings:
        parser.commands["serve"].set_defaults(**settings)
    return parser.parse_args(["serve", *argv])


def test_the_example_has_every_serve_flag_and_parses_to_the_defaults(tmp_path: Path) -> None:
    text = example(serve_parser())
    path = tmp_path / "truco.toml"
    path.write_text(text)
    settings = load_settings(path, serve_parser())
    assert vars(parse([], settings)) == vars(parse([]))
    # every visible option of `serve --help` is a setting (but --config), written out or commented
    help_text = serve_parser().format_help()
    for dest, action in settable(serve_parser()).items():
        assert action.option_strings[0] in help_text
        assert f"\n{dest} = " in text or f"\n# {dest} = " in text, dest
    assert "max_sessions = 500" in text and "mdns = true" in text and "lite = false" in text
    assert "reuse_port" not in text and "config =" not in text


def test_the_cli_prints_the_example(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "example"]) == 0
    out = capfd.readouterr().out
    assert tomllib.loads(out)["port"] == 2222


def test_settings_from_the_file_and_flags_over_them(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('port = 2300\nmax_sessions = 40\nmdns = false\nbot_delay = 2\n'
                    'data_dir = "/var/lib/truco"\nnats = ["nats://a:4222", "nats://b:4222"]\n'
                    'log_level = "INFO"\nworkers = 4\ninput_cpu_per_address_per_second = 0.5\n')
    settings = load_settings(path, serve_parser())
    args = parse(["--port", "2400"], settings)
    config = config_from_args(args)
    assert (config.port, config.max_sessions, config.mdns, config.bot_delay) == (2400, 40, False, 2.0)
    assert config.data_dir == Path("/var/lib/truco")
    assert config.input_cpu_per_address_per_second == 0.5  # (players behind one NAT)
    assert args.nats == "nats://a:4222,nats://b:4222" and args.log_level == "INFO"
    assert args.workers == "4"  # as --workers 4 gives it


@pytest.mark.parametrize("text, reason", [
    ('port = 2222\n\nmax_sesions = 3\n', ":3: unknown setting 'max_sesions'"),
    ('port = "22"\n', ":1: port: must be a whole number, not '22'"),
    ('# x\nport = true\n', ":2: port: must be a single value, not True"),
    ('mdns = "no"\n', ":1: mdns: must be true or false, not 'no'"),
    ('bot_delay = "slow"\n', ":1: bot_delay: must be a number"),
    ('log_level = "LOUD"\n', ":1: log_level: must be one of DEBUG, INFO, WARNING, ERROR, not 'LOUD'"),
    ('[serve]\nport = 1\n', ":1: unknown setting 'serve'"),
    ('metrics = "9100"\n', ":1: metrics: ADDR:PORT wanted, not '9100'"),
    ('port = \n', ": not TOML: "),
])
def test_a_bad_file_is_refused_with_its_line_and_why(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as refused:
        load_settings(path, serve_parser())
    assert str(refused.value).startswith(str(path)) and reason in str(refused.value), str(refused.value)


def test_serve_with_a_bad_file_says_so_and_exits_2(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("port = 1\nfrobnicate = 1\n")
    assert main(["serve", "--config", str(path)]) == 2
    assert f"truco-ssh: {path}:2: unknown setting 'frobnicate'" in capfd.readouterr().err
    assert main(["serve", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read it" in capfd.readouterr().err
