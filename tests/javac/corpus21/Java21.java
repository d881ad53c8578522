package modern21;

import java.util.List;

public sealed interface Java21 permits Java21.Circle, Java21.Square, Java21.Group {
    record Point(int x, int y) {}
    record Circle(Point centre, int r) implements Java21 {}
    record Square(Point corner, int side) implements Java21 {}
    record Group<T extends Java21>(List<T> members) implements Java21 {}

    static String describe(Object o) {
        return switch (o) {
            case null -> "null";
            case Circle(Point(var x, var y), int r) when r > 10 -> "big circle at " + x + "," + y;
            case Circle c -> "circle " + c.r();
            case Square(Point p, int side) -> "square " + side + " at " + p;
            case Group<?>(var members) -> "group of " + members.size();
            case String s when s.isEmpty() -> "empty";
            case Integer i -> "int " + i;
            default -> "other";
        };
    }

    static int area(Java21 s) {
        if (s instanceof Square(Point(int x, int y), int side) && x >= 0) {
            return side * side;
        }
        return switch (s) {
            case Circle c -> 3 * c.r() * c.r();
            case Square q -> q.side() * q.side();
            case Group<?> g -> g.members().size();
        };
    }

    default List<String> names() {
        var sb = new StringBuilder();
        sb.append("""
            a text block \
            with a line continuation and \s a space escape
            """);
        return List.of(sb.toString());
    }
}
