"""The bot levels (engine.BOT_LEVELS, in the order the keys 1 2 3 choose them) and the
locale keys of their names and descriptions."""
from __future__ import annotations

BOT_LEVEL_KEYS = {"easy": "table.bot_easy", "normal": "table.bot_normal", "hard": "table.bot_hard"}
BOT_ABOUT_KEYS = {"easy": "table.bot_easy_about", "normal": "table.bot_normal_about",
                  "hard": "table.bot_hard_about"}
