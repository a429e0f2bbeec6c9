package dev.unicomm.launch;

import java.time.Duration;

/** A stand-alone {@code unicomm run} of two TLS ranks that sleep, for {@link LauncherDeathTest} to kill. */
public final class LauncherProcess {
    private LauncherProcess() {}

    public static void main(String[] args) {
        JobSpec spec = JobSpec.of(2, LaunchedRank.class.getName(), "connect-sleep").withTls(true)
                .withCommTimeout(Duration.ofSeconds(60)).withJobTimeout(Duration.ofSeconds(300));
        System.exit(JobLauncher.run(spec).exitCode());
    }
}
