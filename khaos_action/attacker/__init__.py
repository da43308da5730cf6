"""The adaptive attacker: an attacker model (any OpenAI-compatible endpoint) that rewrites blocked attacks, runs
multi-turn strategies (Crescendo, PAIR) and writes attacks tailored to the agent. Off unless `attacker:` is set.

Every attacker call goes through the run's cassette and budget (`client.AttackerClient`), so a recorded run
replays offline with the same attacks. Attacker text is untrusted: it is only ever sent to the agent and stored
as data, never used as a template or rendered as markup.
"""
