# The khaos-action container (GitHub Docker action, or `docker run` in any CI).
# Base pinned by version tag AND digest (the multi-arch index digest of python:3.12.7-slim-bookworm as recorded by
# Renovate; refresh both together, e.g. `docker buildx imagetools inspect python:3.12.7-slim-bookworm`).
FROM python:3.12.7-slim-bookworm@sha256:032c52613401895aa3d418a4c563d2d05f993bc3ecc065c8f4e2280978acd249

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_NO_INPUT=1

# git: the manifest records the commit, and `install` commands often fetch git dependencies. The workspace is
# mounted from the runner with another owner, so git must be told to trust it.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'

# Installed from a throw-away copy: running /app/entrypoint.py must import the installed package (whose packs live
# at khaos_action/packs), not a source tree beside it.
COPY pyproject.toml README.md /tmp/src/
COPY khaos_action /tmp/src/khaos_action
COPY packs /tmp/src/packs
RUN pip install --no-compile /tmp/src \
    && rm -rf /tmp/src

WORKDIR /app
COPY entrypoint.py /app/entrypoint.py

ENTRYPOINT ["python", "/app/entrypoint.py"]
