# The `jupyter` service of docker-compose.yml: JupyterLab with the `lineage` package, Java 17 for
# Spark and the GraphFrames jar already fetched. Build context: the repository root (.dockerignore
# keeps it small). Build alone with: docker build -f docker/jupyter.Dockerfile -t lineage-jupyter .
#
# bookworm, not the moving `python:3.11-slim`: Debian 13 (trixie) no longer ships openjdk-17.
FROM python:3.11-slim-bookworm

ARG LINEAGE_UID=1000
ARG LINEAGE_GID=1000

# procps: pyspark's launch scripts call `ps`
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless procps \
 && rm -rf /var/lib/apt/lists/*

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LINEAGE_CACHE=/opt/lineage/cache

# README.md is pyproject's `readme` (the package description; setuptools warns without it)
WORKDIR /tmp/lineage-build
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install . "jupyterlab>=4,<5" "matplotlib>=3.8" \
 && python -c "from lineage.spark import check_java, graphframes_jar; print(check_java()); print(graphframes_jar())" \
 && chmod -R a+rX /opt/lineage

# -o: the host's uid/gid may already exist in the image (e.g. gid 20 on macOS)
RUN groupadd -o --gid "${LINEAGE_GID}" lineage \
 && useradd -o --uid "${LINEAGE_UID}" --gid "${LINEAGE_GID}" --create-home --shell /bin/bash lineage \
 && mkdir -p /home/lineage/notebooks /home/lineage/demo-out \
 && chown -R "${LINEAGE_UID}:${LINEAGE_GID}" /home/lineage

USER lineage
WORKDIR /home/lineage
EXPOSE 8888
# the token comes from JUPYTER_TOKEN in the environment (docker-compose.yml requires it)
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--ServerApp.root_dir=/home/lineage"]
