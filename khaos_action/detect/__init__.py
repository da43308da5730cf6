"""Detectors: what a text is or contains (PII, a refusal, a deflection, similarity to another text). Pure functions
of text, below both the invariant checkers (khaos_action/checkers) and the judge's attack classifier, which read
them; they import nothing of the pipeline."""
