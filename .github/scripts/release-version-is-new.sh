#!/usr/bin/env bash
# Release's first check, before anything is built or pushed: version $VERSION must not exist yet, neither as the git
# tag v$VERSION (GitHub's API) nor as the image tag $VERSION or $VERSION-node in the registry (the OCI distribution
# API). A release is its bytes: re-running Release for a version must never move its image tag under the users
# pinned to its release commit. Only "not found" lets it through; any other answer stops it.
#   env: VERSION, IMAGE (registry/owner/name), GITHUB_REPOSITORY, GH_TOKEN, GITHUB_ACTOR,
#        GITHUB_API_URL (default https://api.github.com), REGISTRY_URL (default https://<IMAGE's registry>)
set -euo pipefail
api=${GITHUB_API_URL:-https://api.github.com}
host=${IMAGE%%/*}
repo=${IMAGE#*/}
registry=${REGISTRY_URL:-https://$host}

status=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $GH_TOKEN" \
  -H "Accept: application/vnd.github+json" "$api/repos/$GITHUB_REPOSITORY/git/ref/tags/v$VERSION")
case $status in
  404) ;;
  200) echo "::error::v$VERSION is already released (git tag v$VERSION exists); a version is never rebuilt, release a new one"; exit 1 ;;
  *) echo "::error::cannot tell whether git tag v$VERSION exists (GitHub answered HTTP $status); nothing was pushed"; exit 1 ;;
esac

token=$(curl -sS -u "$GITHUB_ACTOR:$GH_TOKEN" "$registry/token?scope=repository:$repo:pull&service=$host" \
  | jq -r '.token // .access_token // empty')
accept="application/vnd.oci.image.index.v1+json,application/vnd.docker.distribution.manifest.list.v2+json"
accept="$accept,application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json"
for tag in "$VERSION" "$VERSION-node"; do
  status=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" -H "Accept: $accept" \
    "$registry/v2/$repo/manifests/$tag")
  case $status in
    404) ;;
    200) echo "::error::$IMAGE:$tag already exists; a version is never rebuilt, release a new one"; exit 1 ;;
    *) echo "::error::cannot tell whether $IMAGE:$tag exists (the registry answered HTTP $status); nothing was pushed"; exit 1 ;;
  esac
done
echo "version $VERSION is new: no git tag v$VERSION, no image tag $VERSION or $VERSION-node"
