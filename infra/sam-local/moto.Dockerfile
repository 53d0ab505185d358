# Stand-in for motoserver/moto (scripts/sam-local-images.sh builds it when Docker Hub is
# unreachable): Debian bookworm's python3.11 and moto's server from PyPI (pip-installed into
# site/ of the build context), started as that image starts it: on 0.0.0.0:5000.
ARG BASE
FROM ${BASE}
COPY site/ /opt/moto/
ENV PYTHONPATH=/opt/moto LANG=C.UTF-8
EXPOSE 5000
ENTRYPOINT ["python3.11", "-m", "moto.server", "-H", "0.0.0.0", "-p", "5000"]
