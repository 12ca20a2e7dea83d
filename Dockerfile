# agentd in a container: stdout carries protocol frames only (logs go to stderr), tini reaps tool processes and
# forwards signals, and the daemon runs as an unprivileged user.
#   docker build -t agentd .
#   docker run -i --rm -e ANTHROPIC_API_KEY -v "$PWD:/workspace" agentd
# bubblewrap (the read-only sandbox) needs user namespaces and mounts, which Docker's default seccomp and
# AppArmor profiles forbid: without e.g. `--security-opt seccomp=unconfined --security-opt apparmor=unconfined`
# read-only commands run unconfined (`agentd doctor` says which), or ask with -e AGENTD_READONLY_SANDBOX=required.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional skips the native claude binary the SDK devDependency pulls in (only benchmarks use it).
RUN npm ci --omit=optional --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY protocol ./protocol
COPY src ./src
COPY bin ./bin
RUN node scripts/build.mjs && npm prune --omit=dev
# The ripgrep agentd ships is an optional dependency too (@vscode/ripgrep's package for this platform), skipped
# above: fetched on its own, at the version @vscode/ripgrep names, so the image needs no ripgrep of its own.
RUN rg_pkg="@vscode/ripgrep-linux-$(node -p process.arch)" \
 && rg_ver="$(node -p "require('./node_modules/@vscode/ripgrep/package.json').optionalDependencies['$rg_pkg']")" \
 && mkdir -p "node_modules/$rg_pkg" \
 && tgz="$(npm pack --silent "$rg_pkg@$rg_ver")" \
 && tar -xzf "$tgz" --strip-components=1 -C "node_modules/$rg_pkg" && rm -f "$tgz"

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini bash git ca-certificates bubblewrap socat \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /workspace && chown node:node /workspace
USER node
ENV NODE_ENV=production
WORKDIR /workspace
ENTRYPOINT ["/usr/bin/tini", "-g", "--", "/app/bin/agentd"]
CMD ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
