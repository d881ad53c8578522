package com.example.greeting;

/** Builds greetings; plain Java, untouched by the migration. */
public final class Greeter {
    private final String salutation;

    public Greeter(String salutation) {
        this.salutation = salutation;
    }

    public String greet(String name) {
        if (name == null || name.isBlank()) {
            return salutation + ", stranger!";
        }
        return salutation + ", " + name.strip() + "!";
    }
}
