"""The shared hand: cards, calls, actions, events, errors, the state and its RuleSet type,
the ledger, tricks, the truco ladder, the hand's life cycle, views and the dispatching
`game.py`. It imports nothing from engine.rules, engine.variants or engine.bots."""
