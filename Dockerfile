# The images: build the jar with Maven, then run it on a JRE. The last stage (the default) is the
# app; the stage "worker" is the same jar with ffmpeg, for the reference worker
# (`docker build --target worker .`, the worker service of docker-compose.yml).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# The dependency layer: only the poms (the parent's and each module's), so a change to the code reuses
# this layer and does not download Maven's dependencies and plugins again. The modules are packaged
# empty first: go-offline then finds the app's dependency on the worker module in the same build.
# What go-offline misses (a few plugin parts resolved late) the package step below fetches.
COPY pom.xml .
COPY worker-verticle/pom.xml worker-verticle/
COPY app/pom.xml app/
COPY bench/pom.xml bench/
RUN mvn -B -ntp -q -DskipTests package dependency:go-offline
COPY conf conf
COPY worker-verticle/src worker-verticle/src
COPY app/src app/src
RUN mvn -B -ntp -DskipTests -pl app -am package

FROM eclipse-temurin:17-jre AS worker
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
# Not root: the worker runs ffmpeg on files it downloads; a flaw there should not own the container.
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /app shotstash
WORKDIR /app
COPY --from=build /src/target/shotstash.jar /app/shotstash.jar
ENV WORKER_TMP_DIR=/tmp/shotstash-worker
USER 10001:10001
EXPOSE 3006
ENTRYPOINT ["java", "-jar", "/app/shotstash.jar"]
CMD ["worker"]

FROM eclipse-temurin:17-jre
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
# Not root, with a numeric id (so orchestrators that check runAsNonRoot can tell). /data is made and
# owned here, before VOLUME: a new named volume starts as a copy of it, owned by that user.
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /app shotstash \
    && mkdir -p /data && chown 10001:10001 /data
WORKDIR /app
COPY --from=build /src/target/shotstash.jar /app/shotstash.jar
ENV SHOTSTASH_DATA_DIR=/data XDG_CONFIG_HOME=/tmp/xdg
USER 10001:10001
VOLUME /data
EXPOSE 3005
ENTRYPOINT ["java", "-jar", "/app/shotstash.jar"]
CMD ["serve"]
