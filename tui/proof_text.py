"""The proof of a match's deals, said in the player's language (the "My games" dialog and
``truco-ssh verify``): what was checked, and each problem found."""
from __future__ import annotations

from typing import Callable

import protocol as p
from protocol.deal_proof import Verdict, seen as is_seen

Tr = Callable[..., str]


def proof_lines(tr: Tr, proof: p.DealsProof, verdict: Verdict, seen: str | None, noted: bool = False) -> list[str]:
    """``seen``: the commitment this session was sent before the match (None: it did not see
    the match start); ``noted``: it is the one a person gave (``truco-ssh verify --commitment``)."""
    lines = [tr("proof.holds", n=verdict.deals) if verdict.holds else tr("proof.failed")]
    lines += [f"  - {tr(f'proof.problem.{problem.code}', deal=problem.deal)}" for problem in verdict.problems]
    if seen is None:
        lines.append(tr("proof.not_noted" if noted else "proof.unseen"))
    elif is_seen(seen, proof.commitment):
        lines.append(tr("proof.noted" if noted else "proof.seen"))
    lines += ["", tr("proof.commitment", value=proof.commitment), tr("proof.secret", value=proof.secret)]
    if proof.entropy:
        lines.append(tr("proof.entropy", value=", ".join(proof.entropy)))
    if not noted:  # (on a screen: how to check it elsewhere)
        lines += ["", tr("proof.how", table=proof.table_id, match=proof.match_no)]
    return lines
