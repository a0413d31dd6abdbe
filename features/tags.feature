@tags
Feature: Creating tags
  Someone granted CREATE_TAGS or MANAGE_TAGS creates a tag with an id, a name and a
  description. The answer is the new tag's URN, urn:li:tag:<id>, as a plain string, and the
  tag can be read back at once, by URN and through both entity paths. An id names one tag
  only: creating it a second time is a conflict that leaves the first tag as it was.
  Without either privilege the request is rejected and no tag is made.

  Background:
    Given Ann holds a personal access token

  @smoke
  Scenario: Someone granted CREATE_TAGS creates a tag
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @core
  Scenario: Someone granted MANAGE_TAGS creates a tag
    Given Ann is granted MANAGE_TAGS
    When Ann creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @core
  Scenario Outline: A new tag reads back through the <tier> entity path
    Given Ann is granted CREATE_TAGS
    When Ann creates a tag
    Then the tag reads back with its name and description through the <tier> entity path

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @core
  Scenario: A tag id can be used only once
    Given Ann is granted CREATE_TAGS
    And Ann has created a tag
    When Ann creates another tag with the same id
    Then the request is refused as a conflict
    And the first tag is unchanged

  @core
  Scenario: Someone granted neither privilege cannot create a tag
    When Ann creates a tag
    Then Ann is rejected as unauthorized
    And the tag does not exist
