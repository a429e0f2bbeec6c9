/**
 * Starting a job's ranks as local processes from Java: {@link dev.unicomm.launch.JobLauncher#run}
 * with a {@link dev.unicomm.launch.JobSpec} returns a {@link dev.unicomm.launch.JobResult}. This is
 * what {@code unicomm run} does; every rank is tied to the launcher ({@link dev.unicomm.launch.LauncherLink})
 * and starts through {@link dev.unicomm.launch.RankMain}.
 */
package dev.unicomm.launch;
