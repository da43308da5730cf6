# The khaos-action container (GitHub Docker action, or `docker run` in any CI).
#
# Base pinned by version tag AND digest (the multi-arch index digest of python:3.12.7-slim-bookworm). Renovate keeps
# both current (renovate.json: a regex manager for this line, datasource docker); by hand, refresh them together with
# `docker buildx imagetools inspect python:3.12.7-slim-bookworm`. BASE_IMAGE exists for one reason: this project's CI
# cannot reach Docker Hub, so tests/container builds a Debian bookworm stand-in with debootstrap and passes it here.
# Releases and the action's own builds use the default.
ARG BASE_IMAGE=python:3.12.7-slim-bookworm@sha256:032c52613401895aa3d418a4c563d2d05f993bc3ecc065c8f4e2280978acd249

# ---- build: everything the image adds, made under /staging and copied into the image by ONE `COPY`.
# Reproducible: every file the image adds carries SOURCE_DATE_EPOCH as its time (the release passes the commit's
# time; the default is fixed so any build of a commit gives the same layers), bytecode is hash-based, the wheel's zip
# times come from SOURCE_DATE_EPOCH, useradd dates the account from it. Copying /staging to / (instead of a RUN in
# the image, or a COPY into /opt) is what keeps build times out of the layer: a COPY gives its destination folder the
# time of the copy, and the root folder is never part of a layer. tests/container builds twice and compares layers.
# hadolint ignore=DL3006
FROM ${BASE_IMAGE} AS build
ARG SOURCE_DATE_EPOCH=1735689600
ENV PYTHONDONTWRITEBYTECODE=1
# The context is only what .dockerignore lets through: the package, the packs, the entrypoint, the build metadata.
COPY . /src/
# The wheel is built with hash-pinned setuptools/wheel (no unpinned build isolation); the venv gets no pip of its
# own (the build venv's pip installs into it). Bytecode is compiled once, with hash-based invalidation (no file
# times), for our package and pydantic only: the two largest import costs; all of it would add 11 MB and break the
# 40 MB budget (the rest compiles in memory at start, ~0.5 s). Any other __pycache__ is removed first.
# Pull-request code (`install`, the agent) runs as khaos-agent: no access to the runner's files or the action's
# process. Its uid is not the hosted runner's (1001), so it cannot write the mounted /github/file_commands.
RUN python -m venv /build \
    && /build/bin/pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps \
       -r /src/requirements-build.lock \
    && /build/bin/pip wheel --no-cache-dir --no-build-isolation --no-deps --wheel-dir /src/dist /src \
    && python -m venv --without-pip /opt/khaos-action \
    && /build/bin/pip --python /opt/khaos-action/bin/python install --no-cache-dir --no-compile \
       --require-hashes --no-deps -r /src/requirements.lock \
    && /build/bin/pip --python /opt/khaos-action/bin/python install --no-cache-dir --no-compile --no-deps \
       --no-index /src/dist/*.whl \
    && cp /src/entrypoint.py /opt/khaos-action/entrypoint.py \
    && find /opt/khaos-action -name __pycache__ -prune -exec rm -rf {} + \
    && /opt/khaos-action/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash \
       /opt/khaos-action/lib/python3*/site-packages/khaos_action /opt/khaos-action/lib/python3*/site-packages/pydantic \
    && useradd --uid 10001 --user-group --create-home --shell /bin/sh khaos-agent \
    && mkdir -p /staging/etc /staging/home /staging/opt \
    && for name in passwd group shadow gshadow subuid subgid; do \
         if [ -e "/etc/$name" ]; then cp -a "/etc/$name" /staging/etc/; fi; \
       done \
    && cp -a /home/khaos-agent /staging/home/ \
    && cp -a /opt/khaos-action /staging/opt/ \
    && for dir in etc home opt; do chmod --reference="/$dir" "/staging/$dir"; done \
    && find /staging -exec touch -h -d "@${SOURCE_DATE_EPOCH}" {} +

# ---- the image: the base, one venv, one unprivileged user. No git: the commit comes from GITHUB_SHA (always set
# by the runner) or is read from .git/ directly (khaos_action.services.read_git).
# hadolint ignore=DL3006
FROM ${BASE_IMAGE}
ARG SOURCE_DATE_EPOCH=1735689600
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_NO_INPUT=1 \
    KHAOS_AGENT_USER=khaos-agent
COPY --from=build /staging/ /
# WITH_NODE=true makes the `-node` image (release tags `<version>-node`): Debian's Node.js for `command: node
# agent.js` agents (its size is measured by tests/container); other runtimes can come from the `install` input. Its
# files get SOURCE_DATE_EPOCH too, but which nodejs apt installs depends on the day (Debian's security updates). The
# default image's RUN changes nothing (an empty layer).
ARG WITH_NODE=false
# hadolint ignore=DL3008
RUN if [ "$WITH_NODE" = true ]; then \
        touch -d "@$(( $(date +%s) - 1 ))" /tmp/.khaos-build-start \
        && apt-get update && apt-get install --yes --no-install-recommends nodejs \
        && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
        && find / -xdev -newer /tmp/.khaos-build-start -exec touch -h -d "@${SOURCE_DATE_EPOCH}" {} + \
        && rm /tmp/.khaos-build-start && touch -d "@${SOURCE_DATE_EPOCH}" /tmp; \
    fi

# The action's interpreter is its own venv; `python`/`pip` on PATH stay the base's, for the user's `install`.
ENTRYPOINT ["/opt/khaos-action/bin/python", "/opt/khaos-action/entrypoint.py"]
