package dev.unicomm.internal.checked;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** comm-api's own settings: the job, the rendezvous store and its security, the limits (read by {@code CommConfig}). */
public final class CoreSettings implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                backend        | the highest-priority available backend   | backend to open (unicomm info lists them)
                rank           | 0 (or torchrun/Open MPI/Slurm variables) | this process's rank
                world.size     | 1 (or torchrun/Open MPI/Slurm variables) | number of ranks in the job
                local.rank     | 0 (or torchrun/Open MPI/Slurm variables) | rank among the ranks of this host (selects the device)
                store          | unset (or MASTER_ADDR:MASTER_PORT)       | host:port of the rendezvous store rank 0 serves
                token          | unset                                    | shared secret every rank presents to the store (never printed)
                allow.no.token | false                                    | true: a job of several ranks may run its store without a token
                tls            | false                                    | run the rendezvous store over TLS
                tls.keystore   | unset                                    | PKCS12 keystore of the job's key pair (unicomm run --tls makes one)
                tls.password   | unset                                    | the keystore's password (never printed)
                job.id         | the launcher's job id, if any            | keeps a second job on the same port from taking this job's ranks
                timeout        | %ds                                      | limit of every wait (30s, 500ms, 2m or seconds)
                heap.size      | %dM                                      | symmetric heap bytes per PE
                elastic        | false                                    | elastic mode: a job that loses ranks goes on with the others
                verbose        | false                                    | print every stack trace (set by unicomm --verbose)
                """.formatted(CommConfig.DEFAULT_TIMEOUT.toSeconds(), CommConfig.DEFAULT_HEAP_SIZE >> 20));
    }
}
