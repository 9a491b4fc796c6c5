describe("dom environment", () => {
  it("provides Obsidian's DOM helpers on jsdom", () => {
    const root = document.createElement("div");
    const child = root.createEl("span", { text: "hello", cls: "hb-test" });
    expect(child.textContent).toBe("hello");
    expect(root.querySelector(".hb-test")).toBe(child);
    root.empty();
    expect(root.childElementCount).toBe(0);
  });
});
