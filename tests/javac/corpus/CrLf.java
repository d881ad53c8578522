package crlf;

import java.util.List;
/* a block
 comment */ import java.util.Map;

public class CrLf {
    List<String> a;
    // \u000d Map<String, String> b;
    void m() {}
}
