"""The engine's variant catalog, as protocol data for the lobby's New-table form."""
from __future__ import annotations

import engine
from engine.variants.catalog import resolve_options
from engine.variants.senas import sena_codes
import protocol as p


def variant_infos() -> tuple[p.VariantInfo, ...]:
    return tuple(
        p.VariantInfo(
            name=v.name,
            title=v.title,
            player_counts=tuple(v.player_counts),
            options=tuple(
                p.OptionInfo(
                    name=o.name, label=o.label, kind=o.kind, default=o.default,
                    choices=tuple(o.choices), help=o.help,
                )
                for o in v.options
            ),
            implemented=v.implemented,
            senas=sena_codes(v.name),
        )
        for v in engine.variant_catalog()
    )


def validate_options(variant: str, players: int, options: dict[str, p.OptionValue]) -> dict[str, p.OptionValue]:
    """The table's full option set (defaults filled in); ValueError with the engine's reason."""
    return resolve_options(variant, dict(options))
