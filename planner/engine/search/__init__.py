"""Which layout and which cluster: `layouts` enumerates, evaluates and ranks every valid training layout (the
contract's `search`); `sweep` plans, evaluates in chunks and merges a sweep over GPU models and node counts."""
