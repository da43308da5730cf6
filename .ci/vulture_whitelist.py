"""Names the dead-code check (vulture, run by .ci/run) cannot see being used, each with who uses it.

Never imported: vulture only parses this file, and every name below counts as used. Add a name here only when
something outside Python's call graph uses it (a framework by name, a template, a test); otherwise delete the code.
"""
# ruff: noqa

# getattr(commands, f"cmd_{args.command}") in cli.main: one function per subcommand (`-` in a name is `_`).
_.cmd_run, _.cmd_init, _.cmd_demo, _.cmd_validate, _.cmd_contract, _.cmd_compare, _.cmd_merge, _.cmd_discover
_.cmd_replay, _.cmd_post_comment

# Pydantic model fields: read through model_dump / templates / the JSON schema, never as attributes in our code.
_.has_tools, _.has_code_execution, _.has_file_access, _.has_network_access, _.has_mcp, _.has_rag, _.has_memory
_.has_multi_turn  # capability flags (config/models.py, attacks/capabilities.py), iterated by name
_.contains, _.contains_any, _.equals, _.not_contains  # a pack input's `expect` keys (config/models.py)
_.estimated_time  # a Khaos-schema pack's field (README: accepted, shown by nothing yet)
_.by_purpose, _.shard_budgets  # Telemetry fields (manifest.py) the JSON carries; merge sets shard_budgets
_.capability_sources, _.schema_version  # Manifest fields the Markdown and HTML templates show
_.egress_attempts  # CaseResult field: manifest.json carries it (the judge gives it at construction, nothing reads it back)
_.merged_from  # Manifest field: the shards a merged run came from (report/merge.py sets it through model_copy)
_.model_post_init  # pydantic's post-init hook (manifest.py)
_.case_ids, _.worst  # findings.py fields the templates and github/gates.py render
_.html_url  # github/event.py: part of the event payload model
_.RUNNER_TEMP  # github/settings.py: read from the runner's environment with the other GITHUB_* settings

# Jinja templates (report/templates/*.j2) read these view properties and fields.
_.invariant, _.block_rate, _.chart, _.input_truncated, _.not_shown

# Called by the standard library or a third-party framework by name.
_.__class__  # intercept_aiohttp.tap gives an open aiohttp StreamReader its teeing subclass (Python reads it)
_.do_POST, _.log_message, _.daemon_threads, _.request_queue_size  # http.server (demo/model.py)
_.submit  # concurrent.futures.Executor API: asyncio's run_in_executor calls it (engine/transport/threads.py)
_.pause_reading, _.resume_reading, _.output_size, _.buffer_size  # aiohttp's reader/writer (intercept_aiohttp.py)
_._body, _._raw_headers, _._content_consumed  # canned aiohttp/requests responses: the libraries read them
_.__wrapped__, _.__khaos_tool_wrapper__  # inspect.unwrap / our own double-wrap guard read these by name
_.install_signal_handlers, _.should_exit  # uvicorn.Server (mcp/proxy.py)
_.data_received, _.eof_received, _.connection_lost  # asyncio.Protocol callbacks (engine/wire.py's frame reader)
_.intra_op_num_threads, _.inter_op_num_threads, _.log_severity_level  # onnxruntime.SessionOptions (judge/embeddings.py)
_.__getattr__  # PEP 562 module __getattr__ (mutation/__init__.py: httpx imported on first use)
_.OUTPUTS  # github/action.py: the action's output names; tests check action.yml declares exactly these

# Public helpers the product does not call but the tests use as the documented way in (kept on purpose).
_.load_pack  # config/packs.py: one pack by reference (tests; load_packs is the run's)
_.read_events  # engine/events.py: reads events.jsonl back (tests)
_.free_port  # engine/transport/http.py: one free port (tests, bench)
_.export_sessions  # replay/export.py: export_report's sessions alone (tests)
_.unused  # replay/sessions.py: recorded responses no call asked for (tests)

# Named as "module:function" by the registries (khaos_action/reporters.py, khaos_action/transports.py): imported
# only when that report is written (the transports' `build` functions share a name vulture sees called).
_.render_markdown, _.render_sarif, _.render_html, _.iter_junit
# The registries' extension API: used by modules outside the package (tests/fixtures/extensions/khaos_recipe_ext.py).
_.register_reporter, _.register_transport
_.harmful  # an Objective field (config/objectives.py), read by name through KINDS like every kind
_.classify_attack  # judge/classifier.py: the keyword form of `classify` that the judge's tests and bench/judge.py call

# Agent models named by their transport registry entry as "khaos_action.config.agents:Class" (transports.py).
_.CrewAiAgent

# Called by http.client.HTTPResponse on the socket it is given (engine/chaos/intercept_httpclient.py: _Wire).
_.makefile
