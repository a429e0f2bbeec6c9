/** Starts the ranks of a job as local processes: {@link dev.unicomm.launch.JobLauncher}. */
module dev.unicomm.launch {
    requires transitive dev.unicomm.api;

    exports dev.unicomm.launch;
}
