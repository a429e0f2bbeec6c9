package dev.unicomm.backend.ucx;

import dev.unicomm.backend.ucx.internal.UcxProbe;
import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The ucx backend's settings (docs/backends/ucx.md); every {@code UCX_*} variable goes to UCX itself unchanged. */
public final class UcxSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                ucx.library                | %s     | soname or path of libucp
                ucx.progress_spin          | 200    | empty progress rounds before the progress thread sleeps
                ucx.progress_poll_ms       | 1      | longest sleep of the progress thread (0-1000)
                ucx.print_info             | false  | print every endpoint's lanes and transports to stderr at open
                ucx.progress_while_waiting | caller | caller: the progress thread steps aside while a thread of this PE progresses in a wait; both: it keeps progressing
                """.formatted(UcxProbe.DEFAULT_LIBRARY));
    }
}
