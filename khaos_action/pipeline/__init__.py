"""The stages of a run, in the order `khaos_action.evaluate.evaluate` calls them (docs/design.md, "The pipeline"):
config (config.py) → start the agent (session.py) → recon (recon.py) → plan (plan.py) → execute (execute.py) →
judge (judge/stage.py `judge_run`) → score and manifest (manifest.py) → reports (reports.py).

Each stage takes what the stages before produced and the settings it needs (made once by the config stage), and
returns something new: none writes into an earlier stage's output. These modules import the packages they wire
together where they are used, so `import khaos_action.evaluate` stays light (pipeline/preimport.py says why).
"""
