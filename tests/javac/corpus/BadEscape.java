package bad;

class BadEscape {
    int x = \u00g1;
}
