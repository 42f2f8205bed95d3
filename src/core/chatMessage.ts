// A chat message as given to a chat template. It lives on the ground floor because every room
// that speaks to a model uses it: the controller assembles them, the model's tokenizer and
// worker protocol carry them, and neither may import the other.

/** A chat message as given to a chat template. */
export interface ChatMessage {
  readonly role: "system" | "user";
  readonly content: string;
}
