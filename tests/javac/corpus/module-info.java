import java.util.spi.ToolProvider;

/** A module declaration: no types. */
@Deprecated
open module hostile.mod {
    requires transitive java.base;
    exports hostile.api to other.mod;
    uses ToolProvider;
    provides ToolProvider with hostile.impl.Tool;
}
