"""The SSH layer: the asyncssh server (authentication, identity, connection limits), its host
key, compression, and one packet per write."""
