"""The kernel: events, store, determinism primitives, state and snapshots. Knows no domain."""
