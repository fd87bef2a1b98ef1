"""Adapters: serve episodes to agents in other processes, and to RL frameworks in this one.

* `saas_sim.adapters.http`: `create_app(env)`, a FastAPI app (JSON over HTTP).
* `saas_sim.adapters.mcp`: one episode's tools as an MCP server (`serve_episode_stdio`).
* `saas_sim.adapters.gym`: Gymnasium text environments (`register_all`, `SaasSimEnv`); it imports
  gymnasium, which saas_sim never depends on.
* `saas_sim.adapters.trl`: `environment_class(scenario)` for TRL's `GRPOTrainer(environment_factory=...)`.

The HTTP and MCP adapters need the `server` extra (`pip install 'saas-sim[server]'`)
and the Gymnasium one needs gymnasium, so nothing is imported here: `import
saas_sim.adapters` works without them. Adapters import the
runtime; only the command line imports adapters.
"""
