# The images: build the jar with Maven, then run it on a JRE. The last stage (the default) is the
# app; the stage "worker" is the same jar with ffmpeg, for the reference worker
# (`docker build --target worker .`, the worker service of docker-compose.yml).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY conf conf
COPY src src
COPY worker-verticle worker-verticle
RUN mvn -B -ntp -DskipTests package

FROM eclipse-temurin:17-jre AS worker
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/target/shotstash.jar /app/shotstash.jar
ENV WORKER_TMP_DIR=/tmp/shotstash-worker
EXPOSE 3006
ENTRYPOINT ["java", "-jar", "/app/shotstash.jar"]
CMD ["worker"]

FROM eclipse-temurin:17-jre
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/target/shotstash.jar /app/shotstash.jar
ENV SHOTSTASH_DATA_DIR=/data XDG_CONFIG_HOME=/tmp/xdg
VOLUME /data
EXPOSE 3005
ENTRYPOINT ["java", "-jar", "/app/shotstash.jar"]
CMD ["serve"]
