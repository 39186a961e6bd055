"""Assembles the brain from settings (store, embedder, LLM, core) and runs both transports
in one process until SIGINT/SIGTERM: the mind on the main thread's event loop, the servers on a
loop of their own (transport/edge_loop.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, suppress
import signal
import socket
import sys

import structlog
import uvicorn

from brain_server.api.security import check_bind
from brain_server.api.service import BrainCore
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights, unreachable_kinds
from brain_server.config import Settings
from brain_server.llm.allowance import Allowance
from brain_server.llm.client import LLM
from brain_server.llm.context import ContextWindow, Count, context_at_start, embedded_counting, estimate_tokens
from brain_server.llm.embeddings import check_store_embedder, make_embedder
from brain_server.llm.probe import llm_dialect_at_start
from brain_server.llm.spending import Ceilings, Limits, Prices
from brain_server.persistence.storage import open_store
from brain_server.prompts import PromptLibrary
from brain_server.runtime.collector import Collector, settle_collector
from brain_server.runtime.metrics import instrument_store
from brain_server.runtime.parent import die_with_parent, watch
from brain_server.transport import connect_http, grpc_server
from brain_server.transport.edge_loop import EdgeLoop

log = structlog.get_logger(__name__)
STORE_THREADS = 2  # the default executor's: the store's calls (asyncio.to_thread) run Python too
SWITCH_INTERVAL_S = 0.001  # the longest a thread keeps the interpreter while another waits for it


async def build_core(settings: Settings, stack: AsyncExitStack) -> BrainCore:
    """The service core with its store, embedder and LLM; resources close with the stack. A wrong
    setting of a configured endpoint or store raises ConfigError (llm/probe.py)."""
    embedder = make_embedder(settings)
    stack.callback(embedder.close)
    dim = await embedder.ensure_dim()
    check_store_embedder(settings, embedder, dim)
    store = instrument_store(open_store(settings, dim))  # its calls timed for /metrics
    stack.callback(store.close)
    mode, refused = await llm_dialect_at_start(settings)
    base_url, model = settings.llm_base_url, settings.llm_model
    fallback_purposes, concurrency = settings.llm_fallback_purposes, settings.llm_max_concurrency
    prompt_max_bytes = settings.prompt_max_bytes or 24_000
    recorder = None
    if settings.llm_replay:
        from brain_server.llm.recording import ReplayServer

        replay = ReplayServer(settings.llm_replay).start()
        stack.callback(replay.stop)
        base_url = replay.base_url
        log.info("replaying LLM completions", recording=str(settings.llm_replay), answers=len(replay.answers))
    if settings.llm_record:
        from brain_server.llm.recording import Recorder

        recorder = Recorder(settings.llm_record)
        stack.callback(recorder.close)
    context = await context_at_start(settings, base_url)
    count_tokens: Count = estimate_tokens
    if not base_url:
        from brain_server.llm.embedded import FALLBACK_PURPOSES, EmbeddedLLM, model_path

        embedded = EmbeddedLLM.from_settings(settings)
        log.info("no NPC_BRAIN_LLM_BASE_URL set: starting the embedded SmolLM2-135M (weak, for trying things out)")
        await asyncio.to_thread(embedded.start)
        stack.callback(embedded.stop)
        base_url, model = embedded.base_url, embedded.model
        fallback_purposes = FALLBACK_PURPOSES if fallback_purposes is None else fallback_purposes
        prompt_max_bytes = settings.prompt_max_bytes or 12_000  # a 4096-token context, answers included
        context = context or ContextWindow(embedded.ctx_size, "the embedded model's n_ctx")
        count_tokens = embedded_counting(str(model_path()))
        if "llm_max_concurrency" not in settings.model_fields_set:
            # It answers one at a time: the rest wait in the scheduler, most urgent first, rather than in its
            # server in arrival order, where they time out while the abandoned ones are still computed.
            concurrency = 1
    llm = LLM(
        base_url=base_url, model=model, api_key=settings.llm_api_key.get_secret_value(),
        prompts=PromptLibrary(settings.prompts_dir), timeout_s=settings.llm_timeout_s,
        max_attempts=settings.llm_max_attempts, response_mode=mode,
        max_concurrency=concurrency, recorder=recorder, fallback_purposes=fallback_purposes or (),
        prompt_max_bytes=prompt_max_bytes,
        allowance=Allowance(settings.llm_calls_per_npc_hour, settings.llm_calls_per_hour),
        ceilings=Ceilings(settings.tenant_calls_per_window, settings.tenant_tokens_per_window,
                          settings.tenant_money_per_window, settings.tenant_window_s,
                          Prices(settings.llm_price_input_per_m, settings.llm_price_output_per_m),
                          per_game_day=Limits(settings.tenant_calls_per_game_day, settings.tenant_tokens_per_game_day,
                                              settings.tenant_money_per_game_day, "GAME_DAY")),
        send_priority=settings.llm_send_priority,
        extra_body=settings.llm_extra_body, extra_tokens=settings.llm_extra_tokens, refused=refused,
        context=context, count_tokens=count_tokens,
    )
    stack.push_async_callback(llm.close)
    weights = RetrievalWeights(recency=settings.weight_recency, importance=settings.weight_importance,
                               relevance=settings.weight_relevance, decay_per_hour=settings.recency_decay,
                               top_k=settings.retrieve_top_k, exclude=unreachable_kinds(settings.ablate),
                               ablate=settings.ablate)
    core = BrainCore(settings, MemoryStream(store, embedder, llm, weights))
    stack.push_async_callback(core.close)
    await core.saves.recover()  # a load the brain was stopped in is finished before any call
    return core


def settle_threads(loop: asyncio.AbstractEventLoop) -> None:
    """Python runs one thread at a time, and a thread back from a system call (each accept, read
    and write the transports make) waits for the interpreter behind every other thread that wants
    it, up to a switch interval each. Measured at 1,000 NPCs: the six threads of the default
    executor running the store's calls, two record writers, the mind and its LLM client's
    connection pool all wanted it, and the transports' thread waited 80-500 ms for it after a
    single write. So the store's calls share STORE_THREADS threads, and a thread keeps the
    interpreter at most SWITCH_INTERVAL_S while another waits (Python's default: 5 ms)."""
    loop.set_default_executor(ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="store"))
    sys.setswitchinterval(SWITCH_INTERVAL_S)


async def serve(settings: Settings, on_ready: Callable[[str], None] | None = None,
                parent_pid: int | None = None) -> None:
    """Serve until SIGINT/SIGTERM, or until process `parent_pid` (the game that started it) is gone."""
    check_bind(settings)  # before anything loads: an unusable token or an open bind is one line at once
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    settle_threads(loop)
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError):  # Windows' loop has no signal handlers: Ctrl-C interrupts asyncio.run
            loop.add_signal_handler(sig, stop.set)
    async with AsyncExitStack() as stack:
        if parent_pid is not None:
            die_with_parent(parent_pid)
            watching = asyncio.create_task(watch(parent_pid, lambda: _parent_gone(parent_pid, stop)), name="parent")
            stack.callback(watching.cancel)
        core = await build_core(settings, stack)
        core.llm.scheduler.strained = core.vitals.strained
        # The servers run on a loop of their own; each call's core method runs here (transport/edge_loop.py).
        mind, edge = asyncio.get_running_loop(), EdgeLoop()
        stack.callback(edge.close)
        grpc, grpc_port = await edge.run(grpc_server.start(core, settings.host, settings.grpc_port, mind))
        stack.push_async_callback(lambda: edge.run(grpc.stop(2)))
        # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and
        # without it a response's last chunk waits for the client's delayed ACK (~40 ms).
        sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET, socket.SOCK_STREAM,
                             socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((settings.host, settings.http_port))
        app = connect_http.http_app(core, web_root=settings.web_root, mind=mind)
        # Keep idle connections well past a game's pause between calls: with uvicorn's 5 s default a
        # client reusing a connection races the server closing it (resets seen under load).
        # log_config None: uvicorn's lines go to the root logger, which logs.py renders as structlog's.
        http = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False,
                                             timeout_keep_alive=75, log_config=None))
        http_task = asyncio.run_coroutine_threadsafe(http.serve(sockets=[sock]), edge.loop)
        while not http.started:  # "ready" must mean accepting: clients connect the moment they read it
            if http_task.done():
                raise OSError(f"the HTTP server could not start on {settings.host}:{settings.http_port}")
            await asyncio.sleep(0.01)
        http_port = sock.getsockname()[1]
        settle_collector()
        # Watched from here: start-up's full collections (settle_collector's walked ~140k objects,
        # 60 ms of CPU) are no pause of the town's, and read as one in its longest.
        core.vitals.start()
        stack.push_async_callback(core.vitals.stop)
        collector = Collector()  # short pauses in a large town (collector.py)
        collector.install()
        stack.callback(collector.remove)
        sweeping = asyncio.create_task(collector.sweep(), name="collector")
        stack.callback(sweeping.cancel)
        # One stable line that tools and tests parse for the ports actually bound.
        print(f"npc-brain ready grpc={settings.host}:{grpc_port} http=http://{settings.host}:{http_port}", flush=True)
        if on_ready:
            on_ready(f"http://{settings.host}:{http_port}")
        log.info("serving", grpc=f"{settings.host}:{grpc_port}", http=f"http://{settings.host}:{http_port}",
                 web_root=str(settings.web_root or ""))
        await stop.wait()
        log.info("stopping")
        http.should_exit = True
        await asyncio.wrap_future(http_task)


def _parent_gone(pid: int, stop: asyncio.Event) -> None:
    log.info("the process that started the brain is gone: stopping", parent_pid=pid)
    stop.set()
