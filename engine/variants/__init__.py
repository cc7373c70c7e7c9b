"""The variants: a registry (`get_ruleset`, the catalog) and one module or package per
variant, each building its RuleSet from the core types and the rule families."""
