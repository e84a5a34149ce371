// The optimization modes offered by every engine. The list is the single source of truth:
// the id union, validation and the client-facing labels all derive from it.

export const OPTIMIZATION_MODES = [
  {
    id: 'enhance',
    label: 'Enhance & Clarify',
    description:
      'Keeps the prompt and makes what it implies explicit: its rules as a checklist, and the labels, output form, length, tone, audience and language it asks for, in its own words. Nothing is invented and nothing is left to fill in.',
  },
  {
    id: 'structured',
    label: 'Structured Format',
    description:
      'Organises the prompt into Role, Context, Task, Constraints and Output format sections; a role is inferred only when the prompt has none, and a prompt already in sections keeps them and gets only the ones it lacks.',
  },
  {
    id: 'chain-of-thought',
    label: 'Chain of Thought',
    description:
      'Adds a step-by-step reasoning scaffold (understand, list knowns and unknowns, plan, work, verify) tuned to the task, and keeps the reasoning apart from a final answer in exactly the form the prompt asks for.',
  },
  {
    id: 'few-shot',
    label: 'Few-Shot Examples',
    description:
      "Adds a few-shot pattern: a prompt with examples of its own is told to follow them exactly; otherwise the model first writes a few short worked examples (typical, harder, edge case) using exactly the prompt's labels and output form, then answers the same way.",
  },
  {
    id: 'model-specific',
    label: 'Model-Specific',
    description:
      "Lays the prompt out with the conventions of the target model family: XML tags for Claude, system/user messages for GPT, headings for Gemini, chat-template markers for Llama; the user's own role, rules and output format go where each family expects them.",
  },
] as const

export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number]['id']

export const MODE_IDS: readonly OptimizationMode[] = OPTIMIZATION_MODES.map((mode) => mode.id)

export function isOptimizationMode(value: string): value is OptimizationMode {
  return (MODE_IDS as readonly string[]).includes(value)
}
