package \u0070.q;

import java.util.\uuuuu004cist;

/* a comment that ends early *\u002f class EndsEarly { int hidden; } /* and opens again */
class EscapeForms {
    String a = "\\u0041";          // an escaped backslash: not an escape
    String b = "\\\u0041";         // the third backslash is eligible again
    String c = "\u005c\u0022";      // \u005c makes a backslash that escapes the quote
    char d = '\u005c\u0027';     // an escaped quote, spelled with escapes
    String \u0065scaped\u0049dentifier = "\u0041";
    int \u00e9t\u00e9;
    // a comment with \u0041 inside and a line end \u000d int afterCr;
    void \u006d(\u0069nt x) {}
    /** Javadoc naming '\u005Cu0000' as honest code does. */
    String e = """
        a text block with \u005c\u0022"" and */ and \u000a inside
        """;
}
