"""Cluster mode: server processes joined by NATS JetStream (see docs/CLUSTER.md and docs/ARCHITECTURE.md)."""
