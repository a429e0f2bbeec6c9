package dev.unicomm.internal.checked;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** comm-api's own settings: the job, the rendezvous store and its security, the limits (read by {@code CommConfig}). */
public final class CoreSettings implements SettingsProvider {
    @Override public List<Setting> settings() {
        return List.of(
                new Setting("backend", "the highest-priority available backend", "backend to open (unicomm info lists them)"),
                new Setting("rank", "0 (or torchrun/Open MPI/Slurm variables)", "this process's rank"),
                new Setting("world.size", "1 (or torchrun/Open MPI/Slurm variables)", "number of ranks in the job"),
                new Setting("local.rank", "0 (or torchrun/Open MPI/Slurm variables)", "rank among the ranks of this host (selects the device)"),
                new Setting("store", "unset (or MASTER_ADDR:MASTER_PORT)", "host:port of the rendezvous store rank 0 serves"),
                new Setting("token", "unset", "shared secret every rank presents to the store (never printed)"),
                new Setting("allow.no.token", "false", "true: a job of several ranks may run its store without a token"),
                new Setting("tls", "false", "run the rendezvous store over TLS"),
                new Setting("tls.keystore", "unset", "PKCS12 keystore of the job's key pair (unicomm run --tls makes one)"),
                new Setting("tls.password", "unset", "the keystore's password (never printed)"),
                new Setting("job.id", "the launcher's job id, if any", "keeps a second job on the same port from taking this job's ranks"),
                new Setting("timeout", CommConfig.DEFAULT_TIMEOUT.toSeconds() + "s", "limit of every wait (30s, 500ms, 2m or seconds)"),
                new Setting("heap.size", (CommConfig.DEFAULT_HEAP_SIZE >> 20) + "M", "symmetric heap bytes per PE"),
                new Setting("elastic", "false", "elastic mode: a job that loses ranks goes on with the others"),
                new Setting("verbose", "false", "print every stack trace (set by unicomm --verbose)"));
    }
}
