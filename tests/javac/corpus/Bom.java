package bom;

import java.util.List;

public class Bom { List<String> a; }
