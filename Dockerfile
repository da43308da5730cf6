# The khaos-action container (GitHub Docker action, or `docker run` in any CI).
#
# Base pinned by version tag AND digest (the multi-arch index digest of python:3.12.7-slim-bookworm as recorded by
# Renovate; refresh both together, e.g. `docker buildx imagetools inspect python:3.12.7-slim-bookworm`). BASE_IMAGE
# exists for one reason: this project's CI cannot reach Docker Hub, so tests/container builds a Debian bookworm
# stand-in with debootstrap and passes it here. Releases and the action's own builds use the default.
# Few instructions on purpose: each is a layer to copy for the classic builder on the vfs storage driver.
ARG BASE_IMAGE=python:3.12.7-slim-bookworm@sha256:032c52613401895aa3d418a4c563d2d05f993bc3ecc065c8f4e2280978acd249

# ---- build: the action's own venv, from hash-pinned requirements (requirements.lock: pip-compile --generate-hashes)
# hadolint ignore=DL3006
FROM ${BASE_IMAGE} AS build
# The context is only what .dockerignore lets through: the package, the packs, the entrypoint, the build metadata.
COPY . /src/
# The wheel is built with hash-pinned setuptools/wheel (no unpinned build isolation); the venv gets no pip of its
# own (the build venv's pip installs into it). Bytecode is compiled once, with hash-based invalidation (no file
# times: two builds of one commit give the same files), for our package and pydantic only: the two largest import
# costs; all of it would add 11 MB and break the 40 MB budget (the rest compiles in memory at start, ~0.5 s).
RUN python -m venv /opt/build \
    && /opt/build/bin/pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps \
       -r /src/requirements-build.lock \
    && /opt/build/bin/pip wheel --no-cache-dir --no-build-isolation --no-deps --wheel-dir /src/dist /src \
    && python -m venv --without-pip /opt/khaos-action \
    && /opt/build/bin/pip --python /opt/khaos-action/bin/python install --no-cache-dir --no-compile \
       --require-hashes --no-deps -r /src/requirements.lock \
    && /opt/build/bin/pip --python /opt/khaos-action/bin/python install --no-cache-dir --no-compile --no-deps \
       --no-index /src/dist/*.whl \
    && cp /src/entrypoint.py /opt/khaos-action/entrypoint.py \
    && /opt/khaos-action/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash \
       /opt/khaos-action/lib/python3*/site-packages/khaos_action /opt/khaos-action/lib/python3*/site-packages/pydantic

# ---- the image: the base, one venv, one unprivileged user. No git: the commit comes from GITHUB_SHA (always set
# by the runner) or is read from .git/ directly (khaos_action.main.git_info).
# hadolint ignore=DL3006
FROM ${BASE_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_NO_INPUT=1 \
    KHAOS_AGENT_USER=khaos-agent
# Pull-request code (`install`, the agent) runs as khaos-agent: no access to the runner's files or the action's
# process. Its uid is not the hosted runner's (1001), so it cannot write the mounted /github/file_commands.
# WITH_NODE=true makes the `-node` image (release tags `<version>-node`): Debian's Node.js for `command: node
# agent.js` agents (its size is measured by tests/container); other runtimes can come from the `install` input.
ARG WITH_NODE=false
# hadolint ignore=DL3008
RUN useradd --uid 10001 --user-group --create-home --shell /bin/sh khaos-agent \
    && if [ "$WITH_NODE" = true ]; then \
        apt-get update && apt-get install --yes --no-install-recommends nodejs \
        && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin; \
    fi
COPY --from=build /opt/khaos-action /opt/khaos-action

# The action's interpreter is its own venv; `python`/`pip` on PATH stay the base's, for the user's `install`.
ENTRYPOINT ["/opt/khaos-action/bin/python", "/opt/khaos-action/entrypoint.py"]
