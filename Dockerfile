# The promptlib binary in a small image. Build: docker build -t promptlib .
# Run alone (SQLite in the volume): docker run -p 8000:8000 -v promptlib-data:/data promptlib
# Several instances on PostgreSQL: compose.yaml and docs/scaling.md.
FROM oven/bun:1.4 AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml ./
COPY patches ./patches
RUN bun install --frozen-lockfile
COPY . .
RUN bun run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data promptlib && install -d -o promptlib -m 700 /data
COPY --from=build /src/dist/promptlib /usr/local/bin/promptlib
USER promptlib
WORKDIR /data
ENV HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD ["promptlib", "healthcheck"]
ENTRYPOINT ["promptlib"]
CMD ["serve"]
