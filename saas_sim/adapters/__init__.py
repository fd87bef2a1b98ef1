"""Adapters: serve episodes to agents in other processes.

* `saas_sim.adapters.http`: `create_app(env)`, a FastAPI app (JSON over HTTP).
* `saas_sim.adapters.mcp`: one episode's tools as an MCP server (`serve_episode_stdio`).

Both need the `server` extra (`pip install 'saas-sim[server]'`), so nothing is
imported here: `import saas_sim.adapters` works without it. Adapters import the
runtime; only the command line imports adapters.
"""
