"""The episode runtime: worlds, tools, faults, episodes, trajectories, grading."""
