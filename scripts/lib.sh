# Shared by up.sh and test.sh: make sure the toolchain and dependencies are present.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PNPM_VERSION=10.34.9
export NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1

step() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
die() { printf '\033[31merror: %s\033[0m\n' "$*" >&2; exit 1; }

ensure_node() {
  command -v node >/dev/null || die "Node.js 20.19+ is required (install it from your distribution or nodejs.org)"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || die "Node.js 20.19+ is required, found $(node -v)"
}

ensure_pnpm() {
  if ! command -v pnpm >/dev/null || [ "$(pnpm -v 2>/dev/null)" != "$PNPM_VERSION" ]; then
    step "installing pnpm $PNPM_VERSION"
    npm install -g --no-audit --no-fund "pnpm@$PNPM_VERSION" >/dev/null || die "could not install pnpm"
  fi
}

ensure_deps() {
  step "installing dependencies"
  (cd "$ROOT" && pnpm install --frozen-lockfile --reporter=silent) || die "pnpm install failed"
  step "generating the Prisma client"
  (cd "$ROOT" && pnpm --silent db:generate >/dev/null) || die "prisma generate failed"
}

ensure_chromium() {
  if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null; then
    step "installing Chromium (Debian package) for browser tests"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
      { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
      die "could not install chromium; set CHROMIUM_PATH to a Chromium binary"
  fi
}

build_web() {
  local stamp="$ROOT/apps/web/.next/BUILD_ID"
  # Rebuild when any source the web app bundles is newer than the last build.
  if [ ! -f "$stamp" ] || [ -n "$(find "$ROOT/apps/web/src" "$ROOT/packages" -newer "$stamp" -type f \( -name '*.ts' -o -name '*.tsx' -o -name '*.css' \) -not -path '*/node_modules/*' -print -quit)" ]; then
    step "building the web app"
    (cd "$ROOT/apps/web" && pnpm --silent build >"$ROOT/.data/web-build.log" 2>&1) || { tail -40 "$ROOT/.data/web-build.log"; die "web build failed (log: .data/web-build.log)"; }
  fi
}

# Target secrets are encrypted with BENCHBOARD_SECRET_KEY (32 bytes, base64). Without one in the
# environment, a key is generated once into the state directory (readable only by its owner) and
# reused, so secrets stored by an earlier start still decrypt.
ensure_secret_key() {
  if [ -n "${BENCHBOARD_SECRET_KEY:-}" ]; then
    export BENCHBOARD_SECRET_KEY
    return
  fi
  local dir="${BENCHBOARD_STATE_DIR:-$ROOT/.data}"
  local file="$dir/secret.key"
  mkdir -p "$dir"
  if [ ! -s "$file" ]; then
    step "generating the secret key for stored secrets ($file)"
    (umask 077 && head -c 32 /dev/urandom | base64 >"$file") || die "could not write $file"
  fi
  chmod 600 "$file"
  BENCHBOARD_SECRET_KEY="$(tr -d '\n' <"$file")"
  export BENCHBOARD_SECRET_KEY
}

# The one-time token the install's first account must give (kept in the state directory so the
# printed link stays valid across restarts); once that account exists it is no longer asked for.
ensure_setup_token() {
  if [ -n "${BENCHBOARD_SETUP_TOKEN:-}" ]; then
    export BENCHBOARD_SETUP_TOKEN
    return
  fi
  local dir="${BENCHBOARD_STATE_DIR:-$ROOT/.data}"
  local file="$dir/setup-token"
  mkdir -p "$dir"
  if [ ! -s "$file" ]; then
    (umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$file") || die "could not write $file"
  fi
  chmod 600 "$file"
  BENCHBOARD_SETUP_TOKEN="$(tr -d '\n' <"$file")"
  export BENCHBOARD_SETUP_TOKEN
}

# vegeta, the real load tool the `benchboard exec` browser test wraps: built once from the Go
# module proxy into the state directory (the test builds it too when it is missing).
ensure_vegeta() {
  local tools="$ROOT/.data/tools"
  [ -x "$tools/vegeta" ] && return
  command -v go >/dev/null || die "Go is required to build vegeta for the exec test (or put a vegeta binary at $tools/vegeta)"
  step "building vegeta into .data/tools (Go module proxy)"
  mkdir -p "$tools"
  GOBIN="$tools" go install github.com/tsenart/vegeta/v12@latest >"$ROOT/.data/vegeta-build.log" 2>&1 ||
    { tail -20 "$ROOT/.data/vegeta-build.log"; die "building vegeta failed (log: .data/vegeta-build.log)"; }
}

# helm and kubeconform for the Helm chart's test (deploy/helm/chart.integration.test.ts), and the
# Kubernetes and KEDA schemas it validates against: versions pinned in deploy/helm/tools.env, all
# from the Go module proxy, built once into the state directory (the test builds them too when
# they are missing).
ensure_helm_tools() {
  local tools="$ROOT/.data/tools"
  # shellcheck source=../deploy/helm/tools.env
  source "$ROOT/deploy/helm/tools.env"
  command -v go >/dev/null || die "Go is required to build helm and kubeconform for the chart's test (or put them in $tools)"
  mkdir -p "$tools"
  local name module version
  for name in helm kubeconform; do
    if [ "$name" = helm ]; then module=helm.sh/helm/v3/cmd/helm version=$HELM_VERSION; else
      module=github.com/yannh/kubeconform/cmd/kubeconform version=$KUBECONFORM_VERSION; fi
    if [ -x "$tools/$name" ] && go version -m "$tools/$name" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]].*[[:space:]]$version[[:space:]]"; then continue; fi
    step "building $name $version into .data/tools (Go module proxy)"
    GOBIN="$tools" go install "$module@$version" >"$ROOT/.data/$name-build.log" 2>&1 ||
      { tail -20 "$ROOT/.data/$name-build.log"; die "building $name failed (log: .data/$name-build.log)"; }
  done
  step "Kubernetes $KUBERNETES_VERSION and KEDA $KEDA_VERSION schemas for the chart's test"
  (cd "$ROOT/deploy/helm" && node --import tsx schemas.ts >"$ROOT/.data/helm-schemas.log" 2>&1) ||
    { tail -20 "$ROOT/.data/helm-schemas.log"; die "making the chart's schemas failed (log: .data/helm-schemas.log)"; }
}

# schemathesis, which the OpenAPI contract test (apps/web/e2e/schemathesis.e2e.test.ts) runs against
# the built app: installed once with pip into a virtualenv in the state directory.
SCHEMATHESIS_VERSION=4.32.5
ensure_schemathesis() {
  local venv="$ROOT/.data/st-venv"
  [ -x "$venv/bin/schemathesis" ] && return
  command -v python3 >/dev/null || die "Python 3 is required for the OpenAPI contract test (schemathesis)"
  step "installing schemathesis $SCHEMATHESIS_VERSION into .data/st-venv (pip)"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"; } \
    >"$ROOT/.data/schemathesis-install.log" 2>&1 ||
    { tail -20 "$ROOT/.data/schemathesis-install.log"; die "installing schemathesis failed (log: .data/schemathesis-install.log)"; }
}
