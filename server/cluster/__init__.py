"""Cluster mode: server processes joined by NATS JetStream (see README "Development")."""
