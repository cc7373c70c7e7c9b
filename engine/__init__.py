"""Pure rules engine for truco (see DESIGN.md section 3)."""

from engine.catalog import OptionSpec, VariantSpec, variant_catalog

__all__ = ["OptionSpec", "VariantSpec", "variant_catalog"]
