package com.example.greeting;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class GreeterTest {
    @Test
    public void greetsByName() {
        assertEquals("Hello, Ada!", new Greeter("Hello").greet(" Ada "));
    }

    @Test
    public void greetsStrangers() {
        assertEquals("Hello, stranger!", new Greeter("Hello").greet(""));
    }
}
