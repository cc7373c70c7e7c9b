"""Rule families shared by several variants: the envido ladder, Argentine flor, maldon,
and the Spanish-deck card scoring. They import only the core."""
