"""What keeps a running server healthy and watched: logs, metrics, the event loop's lag, the
garbage collector, signals, one server per data directory."""
