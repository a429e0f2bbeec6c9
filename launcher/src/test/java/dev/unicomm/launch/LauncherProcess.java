package dev.unicomm.launch;

import java.time.Duration;

/** A stand-alone {@code unicomm run} of two TLS ranks that sleep, for {@link LauncherDeathTest}. */
public final class LauncherProcess {
    private LauncherProcess() {}

    /** No argument: ranks that sleep, to be killed; {@code hello}: a short TLS job that ends by itself. */
    public static void main(String[] args) {
        String scenario = args.length > 0 ? args[0] : "connect-sleep";
        JobSpec spec = JobSpec.of(2, LaunchedRank.class.getName(), scenario)
                .withTls(true)
                .withCommTimeout(Duration.ofSeconds(60))
                .withJobTimeout(Duration.ofSeconds(300));
        System.exit(JobLauncher.run(spec).exitCode());
    }
}
