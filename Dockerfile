# The app image: build the jar with Maven, run it on a JRE.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY conf conf
COPY src src
RUN mvn -B -ntp -DskipTests package

FROM eclipse-temurin:17-jre
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/target/shotstash.jar /app/shotstash.jar
ENV SHOTSTASH_DATA_DIR=/data XDG_CONFIG_HOME=/tmp/xdg
VOLUME /data
EXPOSE 3005
ENTRYPOINT ["java", "-jar", "/app/shotstash.jar"]
CMD ["serve"]
