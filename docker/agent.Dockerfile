# `benchboard agent` alone: the packed CLI (engines and monitors bundled, no dependencies) on Node.
# Build it from the repository root after `npm pack` in apps/cli:
#   (cd apps/cli && npm pack --pack-destination ../../docker)
#   docker build -f docker/agent.Dockerfile -t benchboard-agent docker
FROM node:20-bookworm-slim
COPY benchboard-cli-*.tgz /tmp/
RUN npm install -g --no-audit --no-fund /tmp/benchboard-cli-*.tgz && rm /tmp/benchboard-cli-*.tgz
USER node
# BENCHBOARD_URL and BENCHBOARD_AGENT_TOKEN come from the environment (a secret, never baked in).
ENTRYPOINT ["benchboard", "agent"]
CMD ["--label", "default"]
