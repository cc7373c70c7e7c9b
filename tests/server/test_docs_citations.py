"""Every document the code and the docs cite is in the repository, and every rule id or
section of the rules they cite is in docs/RULES.md."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("engine", "protocol", "server", "tui", "tests", "docs")
RULES = ROOT / "docs" / "RULES.md"

# A cited markdown file: "docs/RULES.md", "(PROTOCOL.md)", "engine/DECISIONS.md". A name in
# quotes is a path component in code (ROOT / "docs" / "PROTOCOL.md"), not a citation.
MD_FILE = re.compile(r"""(?<![\w"'/.:-])([\w./-]*\w\.md)\b""")
RULE_ID = re.compile(r"\b(OP-[A-Z]{2}-\d+|(?:AR|UY|BR|VE)-\d{2}|OPT-[A-Z0-9]+(?:-[A-Z0-9]+)*|V-[A-Z]+\d+)\b")
# "RULES.md 1.9.4", "RULES.md §5.2", "RULES.md section 4", "RULES.md 4.7.2, 4.8.2", "RULES.md 4.2-4.4"
SECTION_REF = re.compile(r"RULES\.md,? (?:§|section )?(\d+(?:\.\d+)*(?:(?:, |-| / |/| and )\d+(?:\.\d+)*)*)")
SECTION_SIGN = re.compile(r"§(\d+(?:\.\d+)*)")
LINK = re.compile(r"\]\(([^)#\s]+)")  # a Markdown link's target, anchor aside
HEADING = re.compile(r"^#+ (\d+(?:\.\d+)*)\.? ", re.MULTILINE)


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in SCANNED:
        files += [p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".md", ".json") and p.is_file()]
    return [p for p in files if ".venv" not in p.parts and p.resolve() != Path(__file__).resolve()]


def md_target_exists(cited: str, where: Path) -> bool:
    name = cited.split("#", 1)[0]
    return any((base / name).is_file() for base in (where.parent, ROOT))


def rule_labels() -> tuple[str, set[str]]:
    text = RULES.read_text(encoding="utf-8")
    return text, set(HEADING.findall(text))


def cited_sections(text: str) -> list[str]:
    found = []
    for match in SECTION_REF.finditer(text):
        found += re.split(r", |-| / |/| and ", match.group(1))
    return found


def dangling(files: list[Path]) -> list[str]:
    rules_text, sections = rule_labels()
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        for cited in MD_FILE.findall(text):
            if not md_target_exists(cited, path):
                problems.append(f"{where}: cites {cited}, which is not in the repository")
        if path.suffix == ".md":
            for target in LINK.findall(text):
                if "://" not in target and not (path.parent / target).exists():
                    problems.append(f"{where}: links to {target}, which is not in the repository")
        for ident in set(RULE_ID.findall(text)):
            if not re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-]|\.\d)", rules_text):
                problems.append(f"{where}: cites {ident}, not found in docs/RULES.md")
        refs = cited_sections(text)
        if path == RULES:
            refs += SECTION_SIGN.findall(text)
        for section in refs:
            if section not in sections:
                problems.append(f"{where}: cites docs/RULES.md section {section}, which has no heading")
    return problems


def test_every_citation_points_into_the_repository() -> None:
    assert dangling(scanned_files()) == []


def test_a_dangling_citation_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text('"""See DESIGN.md, docs/RULES.md 9.9 and OP-AR-99; docs/RULES.md 1.9.4 is fine."""\n')
    page = tmp_path / "page.md"
    page.write_text("[the example](ssh_player.py), [rules](https://example.org/x.md)\n")
    assert dangling([page]) == ["page.md: links to ssh_player.py, which is not in the repository"]
    assert dangling([bad]) == [
        "probe.py: cites DESIGN.md, which is not in the repository",
        "probe.py: cites OP-AR-99, not found in docs/RULES.md",
        "probe.py: cites docs/RULES.md section 9.9, which has no heading",
    ]
