"""A public server's defence against its abusive strangers: operators (named by SSH key),
and what they do: kick, mute, ban, lift, broadcast; every action recorded.

``restrictions``: a ban or a mute and whom it holds to (pure); ``operators``: whose keys
are operators'; ``book``: the restrictions in force, shared by the SSH layer (which
refuses a banned connection at the handshake) and the hub (which refuses a muted chat);
``store``: their SQL.
"""
