"""The one exception the protocol raises for anything malformed."""


class ProtocolError(ValueError):
    """A frame or message that does not follow the protocol.

    Decoding never raises KeyError/TypeError/msgpack errors: everything a peer
    can send wrongly ends up here, with a message safe to show that peer.
    """
